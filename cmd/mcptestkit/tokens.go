package main

import (
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// The tokenizer of lint/tokens: o200k_base, the encoding of OpenAI's
// current models and close to other vendors' counts for JSON and English.
// It lives here, not in package servercheck: its vocabulary adds megabytes
// to a binary, which every test binary using mcptest would pay for, while
// the command pays once. CheckServer skips lint/tokens.
var o200k = sync.OnceValue(codec.NewO200kBase)

// countTokens counts text's tokens in o200k_base.
func countTokens(text string) int {
	n, err := o200k().Count(text)
	if err != nil {
		return len(text) / 4 // not reached: the codec counts any UTF-8; a rough bound beats none
	}
	return n
}

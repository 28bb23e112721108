package monitor

import (
	"context"

	"github.com/mcptestkit/mcptestkit/client"
)

// Wrap returns tr with every message that crosses it fed to m: what the
// client sends before it goes, what it receives as it comes. It changes
// nothing that flows.
func Wrap(tr client.Transport, m *Monitor) client.Transport {
	if tr == nil || m == nil {
		return tr
	}
	return &observed{inner: tr, m: m}
}

type observed struct {
	inner client.Transport
	m     *Monitor
}

func (o *observed) Send(ctx context.Context, msg []byte) error {
	o.m.Observe(false, msg)
	return o.inner.Send(ctx, msg)
}

func (o *observed) Receive(ctx context.Context) ([]byte, error) {
	msg, err := o.inner.Receive(ctx)
	if err == nil {
		o.m.Observe(true, msg)
	}
	return msg, err
}

func (o *observed) Close() error { return o.inner.Close() }

// Unwrap returns the observed transport.
func (o *observed) Unwrap() client.Transport { return o.inner }

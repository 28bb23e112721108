package main

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
)

// A position is a line of a source file, its path relative to the
// repository's root (as code scanning and annotations want it) or absolute
// when the file lies outside it.
type position struct {
	File string
	Line int
}

// A locator says where a Go server in this repository declares its tools,
// so that a finding about a tool lands on the line a reviewer would fix:
// the handler passed to AddTool with that tool, else the tool's name where
// it is written. It reads the server's source with go/parser: the server
// runs in another process (go run) or was built into this command (the
// Bookshop), so the source is the one thing both cases share.
type locator struct {
	root  string   // paths are made relative to it
	dirs  []string // the server's package first, then the rest of its module
	entry position // where a finding that names no tool goes
	files []*ast.File
	fset  *token.FileSet
	funcs map[string]*ast.FuncDecl // by name (methods by their name too)
	found map[string]position
}

// locatorFor returns the locator of srv, or nil when its source is not
// here: a URL, a program that is not "go run" of a package on this disk.
func locatorFor(srv *server) *locator {
	var dir, entryFile string
	entryLine := 1
	switch {
	case srv.bundled():
		file, line := funcPosition(bookshop.New)
		dir, entryFile, entryLine = filepath.Dir(file), file, line
	case srv.command != nil:
		dir = goRunPackage(srv.command)
	}
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	l := &locator{fset: token.NewFileSet(), funcs: map[string]*ast.FuncDecl{}, found: map[string]position{}}
	l.root = repoRoot()
	l.dirs = append(l.dirs, dir)
	if mod := moduleRoot(dir); mod != "" {
		l.dirs = append(l.dirs, mod)
	}
	l.parse(dir, false)
	if entryFile == "" {
		entryFile, entryLine = l.mainFunc()
	}
	if entryFile == "" {
		return nil
	}
	l.entry = l.position(entryFile, entryLine)
	return l
}

// funcPosition returns where fn is declared.
func funcPosition(fn any) (string, int) {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return "", 0
	}
	return f.FileLine(f.Entry())
}

// goRunPackage returns the directory of the package of "go run PKG ...",
// or "" for any other command line.
func goRunPackage(cmd []string) string {
	if len(cmd) < 3 || filepath.Base(cmd[0]) != "go" || cmd[1] != "run" {
		return ""
	}
	dir := "."
	// go run's build flags that take a value as the next argument.
	valued := []string{"-C", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-exec", "-p", "-o", "-overlay", "-pgo", "-covermode", "-coverpkg", "-toolexec", "-pkgdir", "-buildmode", "-compiler", "-installsuffix"}
	for i := 2; i < len(cmd); i++ {
		a := cmd[i]
		if !strings.HasPrefix(a, "-") {
			if strings.HasSuffix(a, ".go") {
				return filepath.Join(dir, filepath.Dir(a))
			}
			if a == "." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || filepath.IsAbs(a) {
				return filepath.Join(dir, strings.TrimSuffix(a, "/..."))
			}
			return "" // an import path: its source may not be here
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && slices.Contains(valued, "-"+name) && i+1 < len(cmd) {
			i++
			if name == "C" {
				dir = cmd[i]
			}
		}
	}
	return ""
}

// repoRoot is the working directory's repository root (where .git is),
// else the working directory.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

// moduleRoot is the directory of the go.mod above dir, "" if none.
func moduleRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// maxFiles bounds how much of a module the locator reads.
const maxFiles = 2000

// parse reads the Go files of dir (and with all, of the directories under
// it, but testdata, vendor and hidden ones), tests left out.
func (l *locator) parse(dir string, all bool) {
	seen := map[string]bool{}
	for _, f := range l.files {
		seen[l.fset.File(f.Pos()).Name()] = true
	}
	read := func(path string) {
		abs, _ := filepath.Abs(path)
		if seen[abs] || len(l.files) >= maxFiles || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return
		}
		seen[abs] = true
		f, err := goparser.ParseFile(l.fset, abs, nil, goparser.SkipObjectResolution)
		if err != nil {
			return
		}
		l.files = append(l.files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if _, dup := l.funcs[fd.Name.Name]; !dup {
					l.funcs[fd.Name.Name] = fd
				}
			}
		}
	}
	if !all {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			read(filepath.Join(dir, e.Name()))
		}
		return
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && path != dir {
			n := d.Name()
			if n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if !d.IsDir() {
			read(path)
		}
		return nil
	})
}

// mainFunc returns where func main of the parsed package is.
func (l *locator) mainFunc() (string, int) {
	if fd, ok := l.funcs["main"]; ok && fd.Recv == nil {
		p := l.fset.Position(fd.Pos())
		return p.Filename, p.Line
	}
	if len(l.files) > 0 {
		return l.fset.File(l.files[0].Pos()).Name(), 1
	}
	return "", 0
}

func (l *locator) position(file string, line int) position {
	if l.root != "" {
		if rel, err := filepath.Rel(l.root, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
	}
	return position{File: filepath.ToSlash(file), Line: line}
}

// tool returns where the tool is handled, else where its name is written,
// else the entry; the module around the package is read the first time a
// tool is not found in the package itself.
func (l *locator) tool(name string) position {
	if l == nil {
		return position{}
	}
	if p, ok := l.found[name]; ok {
		return p
	}
	p, ok := l.search(name)
	if !ok && len(l.dirs) > 1 {
		l.parse(l.dirs[1], true)
		l.dirs = l.dirs[:1]
		p, ok = l.search(name)
	}
	if !ok {
		p = l.entry
	}
	l.found[name] = p
	return p
}

func (l *locator) search(name string) (position, bool) {
	var handler, literal token.Pos
	for _, f := range l.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if handler.IsValid() {
				return false
			}
			switch n := n.(type) {
			case *ast.CallExpr:
				if callName(n.Fun) == "AddTool" && len(n.Args) >= 2 && l.mentions(f, n.Args[len(n.Args)-2], name, 2) {
					handler = l.handlerPos(n.Args[len(n.Args)-1])
				}
			case *ast.BasicLit:
				if !literal.IsValid() && n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil && s == name {
						literal = n.Pos()
					}
				}
			}
			return true
		})
	}
	pos := handler
	if !pos.IsValid() {
		pos = literal
	}
	if !pos.IsValid() {
		return position{}, false
	}
	p := l.fset.Position(pos)
	return l.position(p.Filename, p.Line), true
}

func callName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr: // AddTool[In, Out](...)
		return callName(f.X)
	case *ast.IndexListExpr:
		return callName(f.X)
	}
	return ""
}

// mentions reports whether the tool expression e names the tool: it holds
// the name as a string literal, or calls a function of the package that
// does, or is a variable assigned such an expression in the same file.
func (l *locator) mentions(f *ast.File, e ast.Node, name string, depth int) bool {
	if e == nil || depth < 0 {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && s == name {
				found = true
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok {
				if fd := l.funcs[id.Name]; fd != nil && fd.Body != nil && l.mentions(f, fd.Body, name, depth-1) {
					found = true
				}
			}
		}
		return !found
	})
	if found {
		return true
	}
	if id, ok := e.(*ast.Ident); ok {
		ast.Inspect(f, func(n ast.Node) bool {
			if found {
				return false
			}
			if as, ok := n.(*ast.AssignStmt); ok {
				for i, lhs := range as.Lhs {
					if lid, ok := lhs.(*ast.Ident); ok && lid.Name == id.Name && i < len(as.Rhs) && l.mentions(f, as.Rhs[i], name, depth-1) {
						found = true
					}
				}
			}
			return true
		})
	}
	return found
}

// handlerPos is where the handler h is written: a function literal where it
// is, a function or method of the package where it is declared.
func (l *locator) handlerPos(h ast.Expr) token.Pos {
	var name string
	switch h := h.(type) {
	case *ast.Ident:
		name = h.Name
	case *ast.SelectorExpr:
		name = h.Sel.Name
	}
	if fd := l.funcs[name]; name != "" && fd != nil {
		return fd.Pos()
	}
	return h.Pos()
}

package retrieve

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// vectorCache keeps the vectors of one model by the hash of the text they
// embed, in memory and, when it has a directory, in a file there.
//
// The file is a header naming the model, then records appended as
// vectors are made: the text's SHA-256, the vector's length, its float32
// values, little-endian. Exact search holds every vector in memory
// anyway, so the file only has to be read whole at start and appended
// to: a database would add a dependency and nothing else. A record cut
// short by a crash is ignored at the next start, as is the whole file if
// its header names another model.
type vectorCache struct {
	model string
	path  string // "" keeps the vectors in memory only

	mu     sync.Mutex
	vecs   map[[sha256.Size]byte][]float32
	loaded bool
}

const cacheMagic = "toolscope vectors 1\n"

func newVectorCache(dir, model string) *vectorCache {
	c := &vectorCache{model: model, vecs: make(map[[sha256.Size]byte][]float32)}
	if dir != "" {
		c.path = filepath.Join(dir, fileName(model)+".vectors")
	}
	return c
}

// fileName makes a model name such as "all-minilm:latest" or
// "hf.co/org/model" safe as a file name.
func fileName(model string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, model)
}

// get returns the vector of the text hashed h, reading the file the
// first time.
func (c *vectorCache) get(h [sha256.Size]byte) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.loaded = true
		c.load()
	}
	v, ok := c.vecs[h]
	return v, ok
}

// put keeps vectors and appends them to the file. A file that cannot be
// written costs a re-embedding at the next start, not this search, so its
// error is returned for logging only.
func (c *vectorCache) put(hashes [][sha256.Size]byte, vecs [][]float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var buf bytes.Buffer
	for i, h := range hashes {
		c.vecs[h] = vecs[i]
		buf.Write(h[:])
		binary.Write(&buf, binary.LittleEndian, uint32(len(vecs[i])))
		binary.Write(&buf, binary.LittleEndian, vecs[i])
	}
	if c.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		f.WriteString(cacheMagic + c.model + "\n")
	}
	_, err = f.Write(buf.Bytes())
	return errors.Join(err, f.Close())
}

// load reads the file's records into memory. A file of another model, or
// of another format, is replaced by the next put.
func (c *vectorCache) load() {
	if c.path == "" {
		return
	}
	f, err := os.Open(c.path)
	if err != nil {
		return
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic, _ := r.ReadString('\n')
	model, _ := r.ReadString('\n')
	if magic != cacheMagic || model != c.model+"\n" {
		f.Close()
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.path = "" // someone else's file: leave it be, and keep ours in memory
		}
		return
	}
	for {
		h, vec, err := readRecord(r)
		if err != nil {
			return // the end, or a record cut short
		}
		c.vecs[h] = vec
	}
}

func readRecord(r io.Reader) (h [sha256.Size]byte, vec []float32, err error) {
	if _, err = io.ReadFull(r, h[:]); err != nil {
		return h, nil, err
	}
	var n uint32
	if err = binary.Read(r, binary.LittleEndian, &n); err != nil {
		return h, nil, err
	}
	if n == 0 || n > 1<<16 {
		return h, nil, errors.New("not a vector")
	}
	raw := make([]byte, 4*n)
	if _, err = io.ReadFull(r, raw); err != nil {
		return h, nil, err
	}
	vec = make([]float32, n)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return h, vec, nil
}

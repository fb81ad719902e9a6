package store

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/s2"

	"github.com/toolscope/toolscope/runs"
)

// A chunk holds events of a run that follow each other: each one's JSON
// and a newline, compressed with S2. Token events repeat their keys and
// shrink to a fraction, which is what the writer's time is spent on: the
// pages SQLite writes, twice, through its write-ahead log.
type chunker struct {
	plain, packed []byte // reused from chunk to chunk: the driver copies them
}

// pack returns the chunk of events, valid until the next call.
func (c *chunker) pack(events []runs.Encoded) []byte {
	c.plain = c.plain[:0]
	for _, e := range events {
		c.plain = append(append(c.plain, e.JSON...), '\n')
	}
	c.packed = s2.Encode(c.packed[:cap(c.packed)], c.plain)
	return c.packed
}

// unpack returns the events of a chunk.
func unpack(chunk []byte) ([][]byte, error) {
	plain, err := s2.Decode(nil, chunk)
	if err != nil {
		return nil, fmt.Errorf("a chunk of events does not decompress: %w", err)
	}
	var events [][]byte
	for line := range bytes.SplitSeq(bytes.TrimSuffix(plain, []byte("\n")), []byte("\n")) {
		events = append(events, line[:len(line):len(line)])
	}
	return events, nil
}

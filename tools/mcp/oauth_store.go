package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/oauth2"
)

// tokenFolder is the folder under the data directory where each server's
// sign-in is kept.
const tokenFolder = "mcp-oauth"

// signedIn is what toolscope keeps of one server's sign-in: the tokens,
// and the client they were issued to, which refreshing them needs.
type signedIn struct {
	Server string `json:"server"`
	// URL is the server's, the resource the token is for: a server of the
	// same name at another URL never gets it.
	URL   string `json:"url"`
	Grant string `json:"grant"`
	// The client: the one configured, or the one registered dynamically
	// (for RedirectURL only), or the client metadata URL.
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	RedirectURL  string           `json:"redirect_url,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style"`
	Scopes       []string         `json:"scopes,omitempty"`
	Resource     string           `json:"resource,omitempty"`
	// Issuer is the configured "issuer" the sign-in was checked against.
	Issuer string        `json:"issuer,omitempty"`
	Token  *oauth2.Token `json:"token"`
}

// tokenStore keeps sign-ins in files of their own, readable by the user
// alone. A zero tokenStore (no folder) keeps nothing.
type tokenStore struct{ dir string }

func newTokenStore(dataDir string) tokenStore {
	if dataDir == "" {
		return tokenStore{}
	}
	return tokenStore{dir: filepath.Join(dataDir, tokenFolder)}
}

// file is the path of server's sign-in. The name is hashed, since a
// server's name may hold anything; the readable prefix helps a person
// who looks in the folder.
func (t tokenStore) file(server string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(t.dir, identifier(server)+"-"+hex.EncodeToString(sum[:6])+".json")
}

// load returns the sign-in kept for server at url, or nil.
func (t tokenStore) load(server, url string) (*signedIn, error) {
	if t.dir == "" {
		return nil, nil
	}
	data, err := os.ReadFile(t.file(server))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s signedIn
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is not a sign-in toolscope wrote (%v); remove it with toolscope mcp logout %s", t.file(server), err, server)
	}
	if s.Server != server || s.URL != url || s.Token == nil {
		return nil, nil // for another server of that name: sign in anew
	}
	return &s, nil
}

// save writes s, replacing the file whole so that a crash leaves the old
// sign-in or the new one, never half of either.
func (t tokenStore) save(s *signedIn) error {
	if t.dir == "" {
		return nil
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return err
	}
	// MkdirAll leaves an existing folder's mode alone.
	if err := os.Chmod(t.dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(t.dir, ".signin-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), t.file(s.Server))
}

// Forget removes the sign-in (tokens and registered client) that
// toolscope keeps for the server named name under dataDir, as
// "toolscope mcp logout" does. The next connection signs in anew.
// It reports whether there was one.
func Forget(dataDir, name string) (bool, error) {
	t := newTokenStore(dataDir)
	err := os.Remove(t.file(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

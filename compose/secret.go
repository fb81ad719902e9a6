package compose

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// A server's arguments, and a remote server's URL, may hold secrets as its
// env and headers do. The file references each as a ${VARIABLE} instead:
//   - the password of a URL's user information (postgresql://ada:PASSWORD@db/shop);
//   - the value of a URL's query parameter whose name looks secret (?api_key=VALUE);
//   - the value of a flag whose name looks secret, joined to it
//     (--api-key=VALUE) or the next argument (--token VALUE), unless that
//     starts with - (another flag) or looks like a path (a key file's path
//     is mounted, not hidden).
//
// A name looks secret when its last word, split at punctuation and where
// lower case meets upper case (api_key, --api-key, apiKey: "key"), ends
// in one of secretWords or is "pass". A value that is a reference already
// (VS Code's ${input:id}) is left to editorVariables.

// secretWords end the names of parameters and flags that hold secrets.
var secretWords = []string{"token", "key", "secret", "password", "passwd", "auth", "credential", "credentials", "signature", "sig"}

// secret is a part of a server's argument or URL that the file references
// rather than holds.
type secret struct {
	in         int    // the argument it is in, by its index in the spec's Args; -1 for the URL
	start, end int    // where it is in that argument or URL, as written
	part       string // what it is, for its variable's name: password, api_key, --token
	what       string // what it fills, for Variable.For
	variable   string // named once every server is placed
}

// reference is how the file writes the secret: "…" while it has no
// variable, in a refused server's Target.
func (s secret) reference() string {
	if s.variable == "" {
		return "…"
	}
	return "${" + s.variable + "}"
}

// argumentSecrets finds the secrets in a command's arguments.
func argumentSecrets(args []string) []secret {
	var found []secret
	for i := 0; i < len(args); i++ {
		arg := args[i]
		flag, value, joined := strings.Cut(arg, "=")
		isFlag := strings.HasPrefix(arg, "-")
		switch {
		case isFlag && joined && secretName(flag):
			found = appendSecret(found, arg, i, len(flag)+1, len(arg), flag, flag+" in its arguments")
		case isFlag && joined:
			found = append(found, shifted(urlSecrets(value, i, "a URL in its arguments"), len(flag)+1)...)
		case isFlag && secretName(arg) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
			found = appendSecret(found, args[i], i, 0, len(args[i]), arg, "argument after "+arg)
		default:
			found = append(found, urlSecrets(arg, i, "a URL in its arguments")...)
		}
	}
	return found
}

// urlScheme is how a URL begins, before its "://".
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// urlSecrets finds the secrets of s, in the argument in, when s is a URL:
// the password of its user information, and the values of its query
// parameters whose names look secret. where says where the URL is.
func urlSecrets(s string, in int, where string) []secret {
	start, end, ok := authority(s)
	if !ok {
		return nil
	}
	var found []secret
	if at := strings.LastIndex(s[start:end], "@"); at >= 0 {
		if colon := strings.Index(s[start:start+at], ":"); colon >= 0 {
			found = appendSecret(found, s, in, start+colon+1, start+at, "password", "password in "+where)
		}
	}
	query := strings.Index(s[end:], "?")
	if query < 0 {
		return found
	}
	pos := end + query + 1
	rest, _, _ := strings.Cut(s[pos:], "#")
	for _, pair := range strings.Split(rest, "&") {
		if name, _, ok := strings.Cut(pair, "="); ok {
			if unescaped, err := url.QueryUnescape(name); err == nil && secretName(unescaped) {
				found = appendSecret(found, s, in, pos+len(name)+1, pos+len(pair), unescaped, "query "+unescaped+" in "+where)
			}
		}
		pos += len(pair) + 1
	}
	return found
}

// authority finds the authority of a URL as written, scheme://AUTHORITY/…:
// where it starts and ends in s. ok is false when s is no such URL.
func authority(s string) (start, end int, ok bool) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !urlScheme.MatchString(scheme) {
		return 0, 0, false
	}
	start = len(scheme) + len("://")
	end = len(s)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = start + i
	}
	return start, end, true
}

// appendSecret adds the secret s[start:end] to found, unless it is empty,
// a reference already, or a path.
func appendSecret(found []secret, s string, in, start, end int, part, what string) []secret {
	value := s[start:end]
	if value == "" || editorVariable.MatchString(value) || looksLikePath(value) {
		return found
	}
	return append(found, secret{in: in, start: start, end: end, part: part, what: what})
}

func shifted(secrets []secret, by int) []secret {
	for i := range secrets {
		secrets[i].start += by
		secrets[i].end += by
	}
	return secrets
}

func looksLikePath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "./") ||
		strings.HasPrefix(s, "../") || windowsPath.MatchString(s)
}

// secretName says whether a parameter's or a flag's name looks secret.
func secretName(name string) bool {
	last := lastWord(name)
	return last == "pass" || slices.ContainsFunc(secretWords, func(w string) bool { return strings.HasSuffix(last, w) })
}

// lastWord is the last word of a name, in lower case: "key" for api_key,
// --api-key and apiKey; "apikey" for APIKey.
func lastWord(name string) string {
	end := len(name)
	for end > 0 && !isAlphanumeric(name[end-1]) {
		end--
	}
	start := end
	for start > 0 && isAlphanumeric(name[start-1]) {
		start--
		if start > 0 && isUpper(name[start]) && isLower(name[start-1]) {
			break
		}
	}
	return strings.ToLower(name[start:end])
}

func isLower(c byte) bool        { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool        { return c >= 'A' && c <= 'Z' }
func isAlphanumeric(c byte) bool { return isLower(c) || isUpper(c) || c >= '0' && c <= '9' }

// referenced is s, the argument or URL in, as the file writes it: each of
// its secrets a reference to its variable, the text between them as text
// writes it.
func referenced(s string, in int, secrets []secret, text func(string) string) string {
	var b strings.Builder
	last := 0
	for _, sec := range secrets {
		if sec.in != in {
			continue
		}
		b.WriteString(text(s[last:sec.start]))
		b.WriteString(sec.reference())
		last = sec.end
	}
	b.WriteString(text(s[last:]))
	return b.String()
}

package upstream

// globMatch reports whether name matches pattern, in which * matches any run of
// characters (including none) and ? any one character; every other character
// matches itself. Tool names hold no path separators, so * crosses everything.
func globMatch(patternStr, nameStr string) bool {
	pattern, name := []rune(patternStr), []rune(nameStr)
	// The classic two-pointer match: on a mismatch, backtrack to the last *
	// and let it swallow one more character.
	p, n := 0, 0
	star, starN := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]) && pattern[p] != '*':
			p++
			n++
		case p < len(pattern) && pattern[p] == '*':
			star, starN = p, n
			p++
		case star >= 0:
			starN++
			p, n = star+1, starN
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

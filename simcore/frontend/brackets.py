"""Bracket matching in CUDA source text, for the source-to-source rewrites done before parsing
(C++ casts, cooperative-groups templates, template bodies, inline PTX)."""


def matching(text, i, open_="(", close=")"):
    """Index of the bracket closing the one at text[i], skipping string literals; -1 if none."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1) if '"' in text[i + 1:] else n
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def rewrite_calls(text, pattern, rewrite, unbalanced):
    """Rewrite, first to last, every call that `pattern` finds (its match ends with the call's
    opening parenthesis): from the match to the closing parenthesis, the text becomes
    ``rewrite(match, arguments)``. A call never closed raises ``unbalanced(match)``."""
    while True:
        m = pattern.search(text)
        if not m:
            return text
        close = matching(text, m.end() - 1)
        if close < 0:
            raise unbalanced(m)
        text = text[:m.start()] + rewrite(m, text[m.end():close]) + text[close + 1:]

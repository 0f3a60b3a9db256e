"""C++ source read as tokens for the tests that scan code (test_generic_layers.py,
test_layout_kinds.py): comments dropped, string literals (raw ones included) and identifiers
kept apart."""

import re

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def cpp_tokens(text):
    """(kind, text) of each string literal ("string": double-quoted and raw), character literal
    ("char") and identifier ("identifier") of C++ source, in order; comments dropped."""
    out, k, n = [], 0, len(text)
    while k < n:
        if text.startswith("//", k):
            k = text.find("\n", k)
            k = n if k < 0 else k
        elif text.startswith("/*", k):
            end = text.find("*/", k + 2)
            k = n if end < 0 else end + 2
        elif text.startswith('R"', k) and (k == 0 or not text[k - 1].isalnum()):
            delimiter = text[k + 2:text.index("(", k)]
            end = text.index(f"){delimiter}\"", k)
            out.append(("string", text[text.index("(", k) + 1:end]))
            k = end + len(delimiter) + 2
        elif text[k] == '"' or (text[k] == "'" and not (k and text[k - 1].isalnum())):
            quote, j = text[k], k + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == "\\" else 1
            out.append(("string" if quote == '"' else "char", text[k + 1:j]))
            k = j + 1
        else:
            match = IDENTIFIER.match(text, k)
            if match:
                out.append(("identifier", match.group()))
                k = match.end()
            else:
                k += 1
    return out

"""Making untrusted text safe to put inside markdown.

Document text, question text and ids come from users. Streamlit renders
markdown, reads ``$...$`` as LaTeX and would otherwise turn ``**`` or ``[x](y)``
into formatting or links. Every ASCII punctuation character may be
backslash-escaped in CommonMark, so escaping all of them shows the text as
written.
"""

from __future__ import annotations

import string

__all__ = ["escape_markdown"]

_ESCAPES = str.maketrans({char: "\\" + char for char in string.punctuation})


def escape_markdown(text: str) -> str:
    r"""``text`` with every ASCII punctuation character backslash-escaped.

    Examples
    --------
    >>> print(escape_markdown("Fee: $5 *net* <b>now</b>"))
    Fee\: \$5 \*net\* \<b\>now\<\/b\>
    """
    return str(text).translate(_ESCAPES)

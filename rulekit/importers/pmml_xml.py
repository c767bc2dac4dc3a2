"""Read a PMML document safely and name where things are in it.

The parser resolves no entities, reads no DTD and touches no network, and keeps lxml's size limits
(``huge_tree`` off): an XXE file or a "billion laughs" file is refused with one line instead of
reading local files or eating memory. Errors carry the file and the element's line.
"""

from __future__ import annotations

from pathlib import Path

from rulekit.errors import ModelFileError, RulekitError

try:
    from lxml import etree
except ImportError:  # optional: the pmml extra
    raise RulekitError("reading PMML needs lxml (pip install 'rulekit[pmml]')") from None

MAX_BYTES = 512 << 20  # a PMML file larger than this is refused before parsing


class PmmlError(ModelFileError):
    """A PMML document rulekit cannot read, or cannot represent exactly (with file and line)."""


def safe_parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                           dtd_validation=False, remove_comments=True, remove_pis=True)


def parse(path: Path) -> etree._Element:
    """The root ``PMML`` element of ``path`` (namespace-agnostic: PMML 4.x namespaces all read)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise PmmlError("no such file", file=str(path)) from None
    if size > MAX_BYTES:
        raise PmmlError(f"PMML file of {size} bytes is larger than the {MAX_BYTES} bytes rulekit reads",
                        file=str(path))
    try:
        tree = etree.parse(str(path), safe_parser())
    except etree.XMLSyntaxError as err:
        line, col = (err.position if err.position else (None, None))
        raise PmmlError(f"not well-formed XML: {err.msg}", file=str(path), line=line,
                        column=(col + 1) if col is not None else None) from None
    except OSError as err:
        raise PmmlError(f"cannot read ({err})", file=str(path)) from None
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise PmmlError("a PMML document has no DOCTYPE; this one declares one (entities are not read)",
                        file=str(path), line=1)
    root = tree.getroot()
    if local(root) != "PMML":
        raise PmmlError(f"the root element is <{local(root)}>, not <PMML>", file=str(path),
                        line=root.sourceline)
    return root


def local(el: etree._Element) -> str:
    """The element's tag without its namespace ('' for comments and other non-elements)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def children(el: etree._Element, name: str | None = None) -> list[etree._Element]:
    """Child elements (Extension elements skipped), optionally only those named ``name`` (in any
    namespace; lxml filters in C, which matters for trees of millions of nodes)."""
    if name is not None:
        return list(el.iterchildren(f"{{*}}{name}"))
    return [c for c in el.iterchildren(etree.Element) if local(c) != "Extension"]


def child(el: etree._Element, name: str) -> etree._Element | None:
    found = children(el, name)
    return found[0] if found else None


class Where:
    """Builds :class:`PmmlError` s that name the file and an element's line."""

    def __init__(self, path: Path):
        self.path = str(path)

    def error(self, el: etree._Element | None, message: str) -> PmmlError:
        line = el.sourceline if el is not None else None
        return PmmlError(message, file=self.path, line=line)

    def attr(self, el: etree._Element, name: str, default: str | None = None) -> str:
        value = el.get(name, default)
        if value is None:
            raise self.error(el, f"<{local(el)}> needs the attribute {name}")
        return value

    def number(self, el: etree._Element, name: str, default: str | None = None) -> float:
        text = self.attr(el, name, default)
        try:
            return float(text)
        except ValueError:
            raise self.error(el, f"<{local(el)}> {name}={text!r} is not a number") from None

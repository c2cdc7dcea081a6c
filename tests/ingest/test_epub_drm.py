"""An EPUB whose chapters are encrypted (DRM) is refused in one line that says
so; a book whose publisher only obfuscated its fonts is read as any other."""

from __future__ import annotations

import io
import zipfile

import pytest

from jw_rag.errors import IngestError
from jw_rag.ingest._source import Loaded
from jw_rag.ingest.epub import parse_epub_bytes
from tests.robust.hostile_files import CHAPTER, CONTAINER, OPF

_ENCRYPTION = """<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
 xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:EncryptionMethod Algorithm="{algorithm}"/>
<enc:CipherData><enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData>
</encryption>"""


def _book(encryption: str | None, chapter: bytes = CHAPTER) -> Loaded:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", b"application/epub+zip")
        zf.writestr("META-INF/container.xml", CONTAINER)
        if encryption is not None:
            zf.writestr("META-INF/encryption.xml", encryption)
        zf.writestr("content.opf", OPF.replace(b"</manifest>", b'<item id="f" href="f.otf" '
                                                b'media-type="font/otf"/></manifest>'))  # fmt: skip
        zf.writestr("ch1.xhtml", chapter)
        zf.writestr("f.otf", b"\x00\x01obfuscated font")
    return Loaded(buf.getvalue(), "book.epub")


def test_encrypted_chapters_are_refused_as_drm() -> None:
    enc = _ENCRYPTION.format(algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc",
                             uri="ch1%2Exhtml")  # fmt: skip
    with pytest.raises(IngestError) as err:
        parse_epub_bytes(_book(enc, b"\x8f\x02\xc3binary ciphertext\x00" * 50))
    assert str(err.value) == (
        "book.epub is protected by DRM (META-INF/encryption.xml encrypts 'ch1.xhtml'); "
        "open it with the software it came with, or ingest a copy without DRM"
    )


def test_a_book_with_only_its_fonts_obfuscated_is_read() -> None:
    enc = _ENCRYPTION.format(algorithm="http://www.idpf.org/2008/embedding", uri="f.otf")
    (doc,) = parse_epub_bytes(_book(enc))
    assert [p.text for p in doc.paragraphs] == ["One", "A paragraph of the chapter."]


@pytest.mark.parametrize(
    "encryption",
    [
        "not xml at all <",
        '<?xml version="1.0"?><!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        '<encryption><CipherReference URI="&x;"/></encryption>',
        "<encryption/>",
    ],
)
def test_an_unreadable_or_empty_encryption_file_leaves_the_chapters_to_speak(
    encryption: str,
) -> None:
    (doc,) = parse_epub_bytes(_book(encryption))
    assert doc.paragraphs[-1].text == "A paragraph of the chapter."


@pytest.mark.parametrize(
    ("algorithm", "uri"),
    [
        ("http://www.idpf.org/2008/embedding", "f.eot"),  # a font this reader does not name
        ("http://ns.adobe.com/pdf/enc#RC", "fonts/face"),  # Adobe's font obfuscation
        ("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "missing.xhtml"),  # not in the book
        ("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "../ch1.xhtml"),  # outside the book
        ("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "http://example.com/ch1.xhtml"),
    ],
)
def test_obfuscated_fonts_and_members_the_book_lacks_do_not_refuse_it(
    algorithm: str, uri: str
) -> None:
    """Only an encrypted member of the book is DRM: a font obfuscated by the
    publisher (whatever its name) or a reference to no member of the book left
    a readable book refused."""
    (doc,) = parse_epub_bytes(_book(_ENCRYPTION.format(algorithm=algorithm, uri=uri)))
    assert doc.paragraphs[-1].text == "A paragraph of the chapter."


def test_a_chapter_named_by_a_path_to_normalise_is_still_drm() -> None:
    enc = _ENCRYPTION.format(algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc",
                             uri="./sub/..//ch1.xhtml")  # fmt: skip
    with pytest.raises(IngestError, match="encrypts 'ch1.xhtml'"):
        parse_epub_bytes(_book(enc, b"\x8f\x02\xc3binary ciphertext\x00" * 50))


def test_an_encryption_file_over_a_mib_is_not_parsed() -> None:
    """Real ones are a few KiB; a huge one (lxml holds ~40 times its size) is
    left unread, and the chapters say whether the book is readable."""
    entry = _ENCRYPTION.format(algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc",
                               uri="ch1.xhtml")  # fmt: skip
    huge = entry.replace("</encryption>", "<!--" + " " * (1024 * 1024) + "--></encryption>")
    (doc,) = parse_epub_bytes(_book(huge))
    assert doc.paragraphs[-1].text == "A paragraph of the chapter."
    with pytest.raises(IngestError, match="protected by DRM"):
        parse_epub_bytes(_book(entry))

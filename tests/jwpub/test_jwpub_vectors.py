"""Known-answer vectors for the JWPUB key derivation and content decryption.

The expected bytes below were NOT produced by jw_core; they come from other
tools, so the algorithm is pinned to fixed bytes rather than to its own inverse:

* digest: ``printf '%s' 0_nwt_2013 | sha256sum`` (coreutils);
* key|iv: that digest XOR CARD_XOR, done in bash arithmetic 8 hex digits at a
  time: ``printf '%08x' $(( 0x${digest:i:8} ^ 0x${const:i:8} ))``;
  the first 32 hex digits are the key, the last 32 the IV;
* compressed: ``python3 -c "import zlib,sys; sys.stdout.buffer.write(
  zlib.compress(open('plain.xhtml','rb').read(), 9))"`` (stdlib zlib; the
  OpenSSL build here has no ``zlib`` command);
* ciphertext: ``openssl enc -aes-128-cbc -K <key> -iv <iv> -in plain.z9 | xxd -p``
  (OpenSSL 3.0, which applies PKCS#7 padding itself).
"""

from __future__ import annotations

import hashlib
import zlib

import pytest

from jw_core.jwpub import (
    CARD_XOR,
    ContentDecryptError,
    decrypt_content,
    derive_key_iv,
    encrypt_content,
    publication_card,
)

NWT_DIGEST = "b77667a0f94ef36044e98ca2b48a9e821366743443bc7e0bc082fb808e20e06d"
NWT_KEY = "a6bdd2f8877c770d08cff5aed7b73c0b"
NWT_IV = "e50991b069862657213ec1a9c4d54dca"
NWT_PLAIN = '<p data-pid="1">In the beginning God created the heavens and the earth.</p>'
NWT_COMPRESSED = (
    "78dab3295048492c49d42dc84cb1553254b2f3cc5328c94855484a4dcfcccbcbcc4b5770cf4f51482e4a"
    "4d2c494d01cb64a42696a5e6152b24e641f8a9894525197a36fa057600b9811976"
)
NWT_CIPHER = (
    "dab5ff3ac5274876fdb85f23219396fe162518d446917b80ef418758633874f5ada490e4f0ac9098094a"
    "6f8fa45a1df83006a63c35807e46571836ab634c58b0ffa8a042840372dacb2ac202fba85cd2"
)

# Card "1_w22_2022_20220600": a Spanish (MEPS 1) magazine issue with a non-zero IssueTagNumber.
W22_DIGEST = "815460ec63ef0e18e01fbf9a67bf28f4cdad2392faf074a38c78fafe6ccf8e80"
W22_KEY = "909fd5b41ddd8a75ac39c69604828a7d"
W22_IV = "3bc2c616d0ca2cff6dc4c0d7263a2327"
W22_PLAIN = '<p data-pid="2">Él creó los cielos y la tierra.</p>'
W22_CIPHER = (
    "c88228cdb1378cad863d92f335ba43bc9a37d81c28ecab65ebf97357dc68e50bff7c2429aaa1c450b2dd"
    "95d49586fc9f415267876a3a89fd41e6f76a8eb3c098"
)


def test_publication_card_strings() -> None:
    assert publication_card(0, "nwt", 2013) == "0_nwt_2013"
    assert publication_card(0, "nwt", 2013, 0) == "0_nwt_2013"
    assert publication_card(1, "w22", 2022, 20220600) == "1_w22_2022_20220600"


@pytest.mark.parametrize(
    ("card", "digest", "key", "iv"),
    [
        ((0, "nwt", 2013, 0), NWT_DIGEST, NWT_KEY, NWT_IV),
        ((1, "w22", 2022, 20220600), W22_DIGEST, W22_KEY, W22_IV),
    ],
)
def test_derive_key_iv_matches_shell_vectors(
    card: tuple[int, str, int, int], digest: str, key: str, iv: str
) -> None:
    assert hashlib.sha256(publication_card(*card).encode()).hexdigest() == digest
    got_key, got_iv = derive_key_iv(*card)
    assert (got_key.hex(), got_iv.hex()) == (key, iv)
    assert CARD_XOR.hex() == "11cbb5587e32846d4c26790c633da289f66fe5842a3a585ce1bc3a294af5ada7"


@pytest.mark.parametrize(
    ("key", "iv", "cipher", "plain"),
    [(NWT_KEY, NWT_IV, NWT_CIPHER, NWT_PLAIN), (W22_KEY, W22_IV, W22_CIPHER, W22_PLAIN)],
)
def test_decrypt_content_of_openssl_ciphertext(key: str, iv: str, cipher: str, plain: str) -> None:
    assert decrypt_content(bytes.fromhex(cipher), bytes.fromhex(key), bytes.fromhex(iv)) == plain


def test_compressed_vector_is_stdlib_zlib_level_9() -> None:
    assert zlib.compress(NWT_PLAIN.encode(), 9).hex() == NWT_COMPRESSED
    assert zlib.decompress(bytes.fromhex(NWT_COMPRESSED)).decode() == NWT_PLAIN


@pytest.mark.parametrize(
    ("key", "iv", "cipher", "plain"),
    [(NWT_KEY, NWT_IV, NWT_CIPHER, NWT_PLAIN), (W22_KEY, W22_IV, W22_CIPHER, W22_PLAIN)],
)
def test_encrypt_content_reproduces_openssl_bytes(
    key: str, iv: str, cipher: str, plain: str
) -> None:
    # At the same zlib level the whole pipeline (compress, PKCS#7 pad, AES-128-CBC)
    # must give OpenSSL's ciphertext byte for byte.
    out = encrypt_content(plain, bytes.fromhex(key), bytes.fromhex(iv), level=9)
    assert out.hex() == cipher


def test_wrong_key_is_a_decrypt_error() -> None:
    key, iv = derive_key_iv(0, "nwt", 2014)  # one year off
    with pytest.raises(ContentDecryptError):
        decrypt_content(bytes.fromhex(NWT_CIPHER), key, iv)


def test_truncated_ciphertext_is_a_decrypt_error() -> None:
    with pytest.raises(ContentDecryptError, match="whole AES blocks"):
        decrypt_content(
            bytes.fromhex(NWT_CIPHER)[:-3], bytes.fromhex(NWT_KEY), bytes.fromhex(NWT_IV)
        )
    with pytest.raises(ContentDecryptError):
        decrypt_content(b"", bytes.fromhex(NWT_KEY), bytes.fromhex(NWT_IV))

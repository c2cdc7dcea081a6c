"""Language detection and code normalisation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jw_core import detect_language, normalize_language

# Short sentences written for these tests; es/pt pairs share most words.
TRICKY = [
    ("es", "Jesús enseñó a sus discípulos a orar a su Padre."),
    ("pt", "Jesus ensinou os seus discípulos a orar ao seu Pai."),
    ("en", "Jesus taught his disciples to pray to his Father."),
    ("es", "La Biblia dice que Dios es amor."),
    ("pt", "A Bíblia diz que Deus é amor."),
    ("en", "The Bible says that God is love."),
    ("es", "¿Dónde está el libro?"),
    ("pt", "Onde está o livro?"),
    ("es", "Ellos fueron a la reunión el domingo."),
    ("pt", "Eles foram à reunião no domingo."),
    ("es", "No tengo tiempo hoy."),
    ("pt", "Não tenho tempo hoje."),
    ("es", "El pueblo de Israel salió de Egipto."),
    ("pt", "O povo de Israel saiu do Egito."),
    ("es", "Eso es muy bueno."),
    ("pt", "Isso é muito bom."),
    ("es", "Ella compró un coche nuevo."),
    ("pt", "Ela comprou um carro novo."),
    ("es", "La casa es grande."),
    ("pt", "A casa é grande."),
    ("en", "Where is the book?"),
    ("en", "I have no time today."),
    ("es", "Pedro y Juan oraron juntos."),
    ("pt", "Pedro e João oraram juntos."),
    ("es", "Lee Juan 3:16 con atención."),
    ("pt", "Leia João 3:16 com atenção."),
    ("en", "Read John 3:16 carefully."),
    ("es", "Gracias por todo."),
    ("pt", "Obrigado por tudo."),
    ("en", "Thanks for everything."),
]


@pytest.mark.parametrize(("lang", "text"), TRICKY, ids=[t for _, t in TRICKY])
def test_short_sentences(lang: str, text: str) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(
    "text", ["", "   ", "12345", "3:16", "1 Cor. 13:4-7", "...!?", "ok", "Hola"]
)
def test_no_evidence_gives_none(text: str) -> None:
    assert detect_language(text) is None


def test_mixed_text_follows_the_majority() -> None:
    es = "El apóstol Pablo escribió muchas cartas a las congregaciones de su tiempo. "
    quote = 'En inglés se dice "the truth will set you free". '
    assert detect_language(es * 3 + quote) == "es"
    en = "The apostle Paul wrote many letters to the congregations of his day. "
    assert detect_language(en * 3 + "Como dice el refrán, poco a poco se va lejos. ") == "en"


def test_candidates_restrict_the_answer() -> None:
    text = "Jesus ensinou os seus discípulos a orar ao seu Pai."
    assert detect_language(text, candidates=("en", "es")) == "es"
    assert detect_language(text, candidates=("pt",)) == "pt"
    assert detect_language(text, candidates=("es-ES", "pt_BR", "E")) == "pt"
    # Languages outside en/es/pt are known to the model.
    assert detect_language("Le chat dort sur le canapé du salon.", ("fr", "es")) == "fr"


def test_bad_candidates_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown candidate language"):
        detect_language("hola amigo", candidates=("español!",))
    with pytest.raises(ValueError, match="candidates is empty"):
        detect_language("hola amigo", candidates=())
    with pytest.raises(ValueError, match="cannot detect"):
        detect_language("hola amigo que tal", candidates=("es", "zz"))


def test_long_paragraphs() -> None:
    pt = (
        "Naquela época, muitas pessoas não sabiam ler, e os livros eram caros. "
        "Por isso, a leitura pública das Escrituras nas sinagogas era muito importante, "
        "e os judeus ouviam com atenção as palavras dos profetas."
    )
    es = (
        "En aquella época, muchas personas no sabían leer, y los libros eran caros. "
        "Por eso, la lectura pública de las Escrituras en las sinagogas era muy importante, "
        "y los judíos escuchaban con atención las palabras de los profetas."
    )
    assert detect_language(pt) == "pt"
    assert detect_language(es) == "es"
    assert detect_language(pt[:1500] * 3) == "pt"


def test_import_loads_no_model() -> None:
    code = "import sys, jw_core; jw_core.detect_language('x'); print('py3langid' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("E", "en"),
        ("S", "es"),
        ("T", "pt"),
        ("en", "en"),
        ("es-ES", "es"),
        ("pt_BR", "pt"),
        ("PT-br", "pt"),
        ("spa", "es"),
        ("por", "pt"),
        ("eng", "en"),
        (" Español ", "es"),
        ("Portuguese", "pt"),
        ("fr", "fr"),
        ("s", None),
        ("e", None),
        ("", None),
        (None, None),
        ("klingon", None),
        ("123", None),
    ],
)
def test_normalize_language(code: str | None, expected: str | None) -> None:
    assert normalize_language(code) == expected


def test_load_language_model_loads_once_and_detection_agrees() -> None:
    from jw_core import language

    language._model.cache_clear()
    language.load_language_model()
    assert language._model.cache_info().currsize == 1
    language.load_language_model()
    assert language._model.cache_info().hits >= 1
    assert detect_language("El alma es la persona entera, según las Escrituras hebreas.") == "es"

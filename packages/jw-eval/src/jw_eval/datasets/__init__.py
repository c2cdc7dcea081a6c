"""Benchmark datasets: the bundled YAML corpus, SQuAD JSON, Chroma's layout and question lines."""

from jw_eval.datasets.chroma import load_chroma, split_blank_lines
from jw_eval.datasets.loader import FORMATS, detect_format, load_dataset
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.datasets.questions_jsonl import load_questions_jsonl
from jw_eval.datasets.squad import load_squad, locate_answer
from jw_eval.datasets.yaml_queries import load_yaml_queries

__all__ = [
    "FORMATS",
    "BenchDocument",
    "BenchQuery",
    "Dataset",
    "detect_format",
    "load_chroma",
    "load_dataset",
    "load_questions_jsonl",
    "load_squad",
    "load_yaml_queries",
    "locate_answer",
    "split_blank_lines",
]

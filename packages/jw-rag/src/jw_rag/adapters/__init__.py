"""Adapters that put our chunkers into other frameworks' pipelines.

Each lives in its own module, imported on demand, and needs its framework's
optional extra: :mod:`jw_rag.adapters.langchain` (extra ``langchain``),
:mod:`jw_rag.adapters.llamaindex` (extra ``llamaindex``).
"""

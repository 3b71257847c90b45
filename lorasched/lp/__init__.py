"""Generic linear-programming machinery on HiGHS (no model names): a restricted master LP
for column generation and the loop around it (:mod:`lorasched.lp.master`)."""

from .master import Column, ColumnGeneration, MasterLP, Pricing, column_generation

__all__ = ["Column", "ColumnGeneration", "MasterLP", "Pricing", "column_generation"]

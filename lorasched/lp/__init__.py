"""Generic linear-programming machinery on HiGHS (no model names): a restricted master LP
for column generation and the loop around it (:mod:`lorasched.lp.master`), and a robust
``run`` of any HiGHS model (:mod:`lorasched.lp.highs`)."""

from . import highs
from .master import Column, ColumnGeneration, MasterLP, Pricing, column_generation

__all__ = ["highs", "Column", "ColumnGeneration", "MasterLP", "Pricing", "column_generation"]

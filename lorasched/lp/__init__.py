"""Generic linear-programming machinery on HiGHS (no model names): a restricted master LP
for column generation and the loop around it (:mod:`lorasched.lp.master`), a sparse MILP
solved to a stated gap (:mod:`lorasched.lp.milp`), and a robust ``run`` of any HiGHS model
(:mod:`lorasched.lp.highs`)."""

from . import highs
from .master import Column, ColumnGeneration, MasterLP, Pricing, column_generation
from .milp import MilpSolution, objective, solve_milp

__all__ = ["highs", "Column", "ColumnGeneration", "MasterLP", "Pricing", "column_generation",
           "MilpSolution", "objective", "solve_milp"]

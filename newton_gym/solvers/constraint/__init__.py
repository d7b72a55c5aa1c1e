"""Constraint rows (MuJoCo's mj_makeConstraint and soft-constraint model): the host layout of every row and
the row math (:mod:`.rows`), the per-row assembly the world solve runs (:mod:`.assemble`) and the row
tables it reads (:mod:`.tables`)."""

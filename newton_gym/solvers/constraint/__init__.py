"""Constraint rows (MuJoCo's mj_makeConstraint and soft-constraint model): the host layout of every row
(:mod:`.rows`), the per-row assembly and soft-constraint math the world solve runs (:mod:`.assemble`) and
the Warp structs it reads and writes (:mod:`.tables`)."""

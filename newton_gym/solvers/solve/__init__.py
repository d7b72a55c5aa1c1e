"""The constraint solve (MuJoCo's mj_fwdConstraint): one block per world assembles its active rows and
solves their forces by primal Newton (:mod:`.newton`, MuJoCo's default; each row's terms in :mod:`.row_terms`)
or PGS (:mod:`.pgs`) in
:mod:`.world`; :mod:`.forces` turns the solved row forces into contact forces.

For rows i of a world, the forces f minimise 1/2 f^T (A + R) f + f^T (a0 - a_ref) subject to the row
bounds (contacts f >= 0 per pyramid edge, limits f >= 0, joint friction |f| <= F, equalities free;
elliptic cones project (f_t1, f_t2) onto the disc of radius mu f_n), with A = J M^-1 J^T
(MuJoCo computation: "Constraint model"). Forces persist per row between substeps as warm starts.
"""

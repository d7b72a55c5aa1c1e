"""Smooth dynamics (MuJoCo's mj_fwdPosition / mj_fwdVelocity / mj_fwdActuation up to qacc_smooth): motion
subspaces, composite-rigid-body mass matrix, bias forces and the factorization (:mod:`.dynamics`); passive,
drive and actuator forces (:mod:`.passive`)."""

"""newton_gym.solvers: time integrators for a Model.

``SolverGeneralized`` steps articulated rigid bodies in generalized coordinates with MuJoCo-style soft
contacts, limits, joint friction, equality constraints and fixed / spatial tendons, with the settings of an
``Option``;
``SolverBase`` is the interface every solver implements (``SolverNotifyFlags`` names what changed for
``notify_model_changed``); ``Actuators`` describes MuJoCo actuators on joints and tendons.

The package follows MuJoCo's computation chapter, one folder or module per stage:

==================  ================================================================================
``forward``         the stage list, written once: ``substep`` runs smooth -> collision -> constraint and
                    solve -> integrate for every model, as four launches of per-world blocks
``smooth/``         kinematics-dependent dynamics: motion subspaces, composite-rigid-body mass matrix,
                    bias forces (RNE), factorization (``dynamics``); tendon lengths, sparse Jacobians and
                    spring-dampers (``tendon``, MuJoCo's mj_tendon); passive and actuator forces
                    (``passive``)
``collision/``      candidate pairs enumerated per group of equal worlds (``candidates``) and stored per
                    template (``pairs``), contact slots and the bundles' bounding test (``driver``),
                    primitive, convex (GJK / EPA, MuJoCo's multicontact, polygon clipping), heightfield
                    (MuJoCo's prisms) and hull narrow phases,
                    per-pair and per-bundle contact parameters (``params``)
``constraint/``     constraint rows: host layout and soft-constraint math (``rows``), per-row assembly
                    on the device (``assemble``; equalities: ``equality``), the contact rows of a DOF
                    path with several contacts from one L^-T S^T (``path_bases``), the row tables the
                    solve reads (``tables``), MuJoCo's inverse weights (``invweights``)
``solve/``          the per-world solve (``world``): primal Newton (``newton``), PGS (``pgs``), and the
                    contact forces from the solved rows (``forces``)
``integrate``       semi-implicit Euler (MuJoCo's implicitfast), health flags, resets
``generalized``     ``SolverGeneralized``: builds the tables, binds the stages, threads, capture, edits
``option``          ``Option``: the solver's settings, validated in one place
``types``           ``Data`` (the per-step scratch, shapes and units) and small value types
``tree``            host-side tree tables (``TreeLayout``) and the declared-table base
``partition``       world spans for CPU threads and launch blocks
``spatial``         spatial algebra and small dense linear algebra (``@wp.func``)
``lanes``           the barrier between the passes of a block
``items``           element access of the solver's contiguous arrays without Warp's index arithmetic (the
                    hottest loops on the CPU)
==================  ================================================================================

Glossary (one name per concept):

- **world**: one independent copy of the scene; its entities are the ``*_world_start`` ranges of the model.
  Entities of world -1 are global (a ground plane, or a tree shared by every world).
- **tree**: a kinematic tree, the model's *articulation* (``articulation_*`` fields; ``art`` in index names
  such as ``art_dof_start``). Its DOFs are contiguous and its mass matrix is one dense block.
- **DOF**: one generalized velocity coordinate (``joint_dof_*``); a joint has 0 to 6.
- **row**: one scalar constraint (a contact's normal or pyramid edge, a joint limit, joint friction, an
  equality component, a tendon limit side or tendon friction); rows are numbered per world.
- **tendon entry**: one non-zero of a tendon's sparse Jacobian (a DOF the tendon moves), its pattern fixed
  when the solver is built (MuJoCo's ten_J_colind).
- **slot**: room for one contact point of a candidate pair; a pair owns consecutive slots.
- **pair**: two shapes that may touch, found once when the solver is built.
- **template**: one distinct world layout; worlds replicated from one scene share its pair and tree-level
  tables and index them by world.
- **block**: the unit of one launch block of the per-world passes: one world, or every world where worlds
  share entities. **lane**: one of the ``block_dim`` threads of a block (1 on the CPU).
- **span**: the worlds one CPU thread steps, as (first, count) in every index space.
"""

from .base import SolverBase, SolverNotifyFlags
from .generalized import SolverGeneralized
from .option import Option
from .smooth.passive import Actuators

__all__ = ["SolverBase", "SolverGeneralized", "SolverNotifyFlags", "Actuators", "Option"]

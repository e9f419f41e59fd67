"""Running a graded notebook in a fresh kernel: a time limit per cell and per notebook."""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field

import nbformat
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

SETUP_TIMEOUT = 300  # seconds for the grader's own `import lessons`, not the student's time
#: Seconds a kernel may take to start (nbclient's default is 60): on a busy machine, or in the
#: sandbox with a class grading beside it, a start can take longer, and that is no student's fault.
STARTUP_TIMEOUT = 300


@dataclass
class Run:
    """How the kernel run went."""

    fault: str | None = None  # "timeout", "kernel_died", "kernel_failed: ..."
    where: int | None = None  # the graded cell it hit
    timed_out: list[int] = field(default_factory=list)  # cells interrupted past the limit


class _Client(NotebookClient):
    """nbclient, interrupting a cell past its time and going on with the next one."""

    def __init__(self, *args, run: Run, deadline: list, index_of: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self._run, self._deadline, self._index_of = run, deadline, index_of

    async def _async_handle_timeout(self, timeout, cell=None):  # nbclient's hook
        index = self._index_of.get(id(cell))
        past = self._deadline[0] is not None and time.monotonic() > self._deadline[0]
        if index in self._run.timed_out or past:  # the interrupt did not end it, or no time left
            self._run.where = index
            raise CellTimeoutError.error_from_timeout_and_cell("Cell timed out", timeout, cell)
        self._run.timed_out.append(index)
        await ensure_async(self.km.interrupt_kernel())
        return None


#: Threads per kernel where the caller set none: the parallelism is across students (`--jobs`),
#: and one thread per kernel keeps several kernels from fighting over the same cores.
KERNEL_THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def kernel_environment() -> dict[str, str]:
    """The environment of a student's kernel: the grader's, one thread each unless set."""
    env = dict(os.environ)
    for name in KERNEL_THREADS:
        env.setdefault(name, "1")
    return env


def execute(graded: nbformat.NotebookNode, timeout: float, notebook_timeout: float) -> Run:
    """Run the graded notebook in a fresh kernel; each cell gets `timeout` seconds."""
    run = Run()
    deadline: list[float | None] = [None]
    index_of = {id(c): i for i, c in enumerate(graded.cells)}

    def cell_timeout(cell) -> float:
        run.where = index_of.get(id(cell))
        if run.where == 0:
            return SETUP_TIMEOUT
        if deadline[0] is None:
            deadline[0] = time.monotonic() + notebook_timeout
        return max(1, min(timeout, deadline[0] - time.monotonic()))

    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        client = _Client(
            graded,
            kernel_name="python3",
            timeout_func=cell_timeout,
            interrupt_on_timeout=True,
            allow_errors=True,
            record_timing=False,
            shutdown_kernel="immediate",
            startup_timeout=STARTUP_TIMEOUT,
            resources={"metadata": {"path": workdir}},
            run=run,
            deadline=deadline,
            index_of=index_of,
        )
        try:
            client.execute(env=kernel_environment())
        except CellTimeoutError:
            run.fault = "timeout"
        except DeadKernelError:
            run.fault = "kernel_died"
        except Exception as error:  # the kernel did not start, or nbclient failed
            run.fault = f"kernel_failed: {type(error).__name__}: {error}"
    if run.fault is None:
        run.where = None
    return run


def cell_error(cell: nbformat.NotebookNode) -> tuple[str, str] | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output.get("ename", "Exception"), str(output.get("evalue", ""))[:300]
    return None


# --- values out of the kernel, and the verdict outside it -------------------------------------


def default_jobs() -> int:
    """Notebooks run at once by default: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)

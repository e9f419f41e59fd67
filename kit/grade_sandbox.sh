#!/usr/bin/env bash
# Grade an untrusted class inside a bubblewrap sandbox (`make grade-sandboxed SUBMISSIONS=folder`).
#
# The students' code runs as the unprivileged user nobody (65534) in new namespaces (user,
# mount, network, PID, IPC, UTS): no network at all (a loopback for the kernel only), the
# system, Python, the virtual environment and this course mounted read-only, an empty private
# /tmp as home, and nothing else of the machine visible: not your home folder, keys or other
# files. The submissions folder is the one writable place (the grades go into its grading/).
# The sandbox ends with the grader (--die-with-parent). Needs bwrap (Debian/Ubuntu: apt-get
# install bubblewrap); tests/test_grade_class.py runs it on hostile submissions.
#
# Usage: kit/grade_sandbox.sh SUBMISSIONS [python -m kit grade's options]
set -euo pipefail

if [[ $# -lt 1 || ! -d "$1" ]]; then
    echo "usage: kit/grade_sandbox.sh SUBMISSIONS [--timeout S] [--jobs N] ..." >&2
    exit 2
fi
command -v bwrap >/dev/null || { echo "grade_sandbox: bwrap is missing (apt-get install bubblewrap)" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
submissions=$(cd "$1" && pwd -P)
shift
python="$root/.venv/bin/python"
venv=$(cd "$root/.venv" && pwd -P)
# The interpreter the environment was made from (its standard library) lives elsewhere.
base=$("$python" -c 'import sys; print(sys.base_prefix)')

binds=()
for path in /usr /etc /lib /lib32 /lib64 /bin /sbin "$base" "$venv" "$root"; do
    [[ -e "$path" ]] && binds+=(--ro-bind "$path" "$path")
done
# A points file is read where it is: shown read-only, by its absolute path.
args=()
while [[ $# -gt 0 ]]; do
    if [[ "$1" == "--points" && $# -gt 1 ]]; then
        points=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")
        binds+=(--ro-bind "$points" "$points")
        args+=(--points "$points")
        shift 2
    else
        args+=("$1")
        shift
    fi
done

# /tmp first: a submissions folder under /tmp is bound over the private one.
exec bwrap \
    --tmpfs /tmp --dev /dev --proc /proc \
    "${binds[@]}" \
    --bind "$submissions" "$submissions" \
    --unshare-all --uid 65534 --gid 65534 \
    --die-with-parent --new-session \
    --clearenv \
    --setenv HOME /tmp \
    --setenv PATH "$venv/bin:/usr/bin:/bin" \
    --setenv PYTHONPATH "$root" \
    --setenv MPLCONFIGDIR /tmp/matplotlib \
    --setenv JUPYTER_RUNTIME_DIR /tmp/jupyter \
    --setenv OMP_NUM_THREADS 1 \
    --chdir "$root" \
    "$python" -m kit grade "$submissions" ${args[@]+"${args[@]}"}

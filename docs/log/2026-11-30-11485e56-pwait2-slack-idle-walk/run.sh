#!/usr/bin/env bash
# run.sh OUT: the first trial's run (../2026-11-30-11485e56-pwait2-slack-walk/run.sh) with this
# entry's walk.diff over pwait2-slack's time.go and proc.go: check walks a busy P's windows only
# once their bound comes due, and a P walks its own as it goes idle. DIFF=first/walk.diff runs the
# first version. About 2 minutes on 2 cores.
here=$(cd "$(dirname "$0")" && pwd)
DIFF=$(realpath "${DIFF:-$here/walk.diff}") exec bash "$here/../2026-11-30-11485e56-pwait2-slack-walk/run.sh" "$@"

// This go.mod only fences src-overlay/ off from the timerlab module: the files here are Go runtime
// and standard library sources at their GOROOT-relative paths, built by make.bash, never by us.
// The scripts never copy it into a Go tree (see TL_OVERLAY_FENCE in scripts/lib.sh).
module timerlab/src-overlay

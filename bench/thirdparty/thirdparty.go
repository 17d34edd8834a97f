// Package thirdparty pins, through this module's go.mod, the third-party libraries whose own
// benchmarks timerlab runs with each toolchain (go test -c github.com/valyala/fasthttp from this
// module). Importing them here keeps `go mod tidy` from dropping them.
package thirdparty

import (
	_ "github.com/valyala/fasthttp"
)

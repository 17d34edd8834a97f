#!/usr/bin/env bash
# run.sh PACK OUT: etcd's lease benchmark (one etcd v3.6.0 server, 1000 clients over 100
# connections, each a lease of 100 s that it keeps alive with KeepAliveOnce, 200,000 requests) with
# heap's and pwait2-slack's builds of etcd from a pack (PACK: a directory timerlab bench
# --build-only made with sweet-etcd), a 20 s CPU profile of the server during each load, and each
# profile's share of timer code, as the report counts it. Ports 23790 and 23800.
set -euo pipefail
pack=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
url=http://127.0.0.1:23790
for v in heap pwait2-slack; do
	bin=$pack/bin/$v/sweet-etcd.d/etcd
	godebug=
	[ "$v" = pwait2-slack ] && godebug=timerslack=1 # its GODEBUG in variants.conf
	data=$(mktemp -d)
	GODEBUG=$godebug "$bin/etcd" --name s --data-dir "$data" --listen-client-urls $url --advertise-client-urls $url \
		--listen-peer-urls http://127.0.0.1:23800 --initial-advertise-peer-urls http://127.0.0.1:23800 \
		--initial-cluster s=http://127.0.0.1:23800 --enable-pprof --log-level error 2> "$out/$v.etcd.log" &
	pid=$!
	until curl -fs $url/health > /dev/null; do sleep 0.2; done
	(sleep 3 && curl -fs -o "$out/$v.pb.gz" "$url/debug/pprof/profile?seconds=20") &
	prof=$!
	"$bin/benchmark" --endpoints 127.0.0.1:23790 --conns 100 --clients 1000 lease-keepalive --total 200000 > "$out/$v.txt" 2>&1
	wait $prof
	kill $pid && wait $pid || true
	rm -rf "$data"
done
cd "$here/../../.." && go run ./docs/log/2026-11-30-1cf3c4e9-lease/share "$out"/heap.pb.gz "$out"/pwait2-slack.pb.gz

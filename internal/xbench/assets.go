package xbench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sweet's assets come from a storage bucket that not every machine reaches. Of the benchmarks the
// sets run, etcd needs none; gopher-lua and markdown get the stand-ins below, made here from a
// fixed seed, so that every run of one timerlab version reads the same bytes. They are not sweet's
// assets: their figures compare the variants within one run, not with sweet's published numbers.
// The sweet-controls set's Note (internal/suite) says so in the report.

// kNucleotideLua is a k-nucleotide program written for timerlab, with the two functions sweet's
// gopher-lua driver calls: frequency(seq, k) and count(seq, fragment).
const kNucleotideLua = `-- A stand-in for sweet's k-nucleotide.lua, written for timerlab (internal/xbench/assets.go):
-- the two functions sweet's gopher-lua driver calls, over the whole input sequence.

function frequency(seq, k)
  local counts = {}
  local n = #seq - k + 1
  for i = 1, n do
    local frag = string.sub(seq, i, i + k - 1)
    counts[frag] = (counts[frag] or 0) + 1
  end
  local frags = {}
  for frag in pairs(counts) do
    frags[#frags + 1] = frag
  end
  table.sort(frags, function(a, b)
    if counts[a] == counts[b] then
      return a < b
    end
    return counts[a] > counts[b]
  end)
  local out = {}
  for _, frag in ipairs(frags) do
    out[#out + 1] = string.format("%s %0.3f", frag, 100 * counts[frag] / n)
  end
  return table.concat(out, "\n")
end

function count(seq, frag)
  local found, k = 0, #frag
  for i = 1, #seq - k + 1 do
    if string.sub(seq, i, i + k - 1) == frag then
      found = found + 1
    end
  end
  return string.format("%d\t%s", found, frag)
end
`

// rng is a 64-bit linear congruential generator (Knuth's MMIX constants): the stand-ins must be
// the same bytes in every run, whatever math/rand does in the Go that builds timerlab.
type rng uint64

func (r *rng) next(n int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int(uint64(*r>>33) % uint64(n))
}

// dna returns lines of 60 bases, n bases in all.
func dna(n int) string {
	var b strings.Builder
	r := rng(1)
	for i := 0; i < n; i++ {
		b.WriteByte("ACGT"[r.next(4)])
		if i%60 == 59 {
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	return b.String()
}

var words = strings.Fields(`timer wheel heap slack deadline ticker goroutine scheduler wakeup netpoll
	cascade bucket level slot bitmap latency throughput median interval variant baseline runtime
	channel context cancel reset stop fire expire coalesce window tick period jitter clock monotonic`)

// markdownDoc returns a Markdown document of about size bytes: headings, paragraphs with emphasis,
// code and links, lists, a table, a quote and a code block, which exercise the renderer's paths.
func markdownDoc(r *rng, size int) string {
	var b strings.Builder
	word := func() string { return words[r.next(len(words))] }
	sentence := func() string {
		var s []string
		for i := 0; i < 6+r.next(12); i++ {
			w := word()
			switch r.next(12) {
			case 0:
				w = "*" + w + "*"
			case 1:
				w = "**" + w + "**"
			case 2:
				w = "`" + w + "()`"
			case 3:
				w = "[" + w + "](https://example.com/" + w + ")"
			}
			s = append(s, w)
		}
		return strings.ToUpper(s[0][:1]) + s[0][1:] + " " + strings.Join(s[1:], " ") + "."
	}
	for sec := 1; b.Len() < size; sec++ {
		fmt.Fprintf(&b, "## %d. The %s and the %s\n\n", sec, word(), word())
		for p := 0; p < 2+r.next(3); p++ {
			for s := 0; s < 3+r.next(4); s++ {
				b.WriteString(sentence() + " ")
			}
			b.WriteString("\n\n")
		}
		switch sec % 4 {
		case 0:
			for i := 0; i < 3+r.next(4); i++ {
				fmt.Fprintf(&b, "- %s\n  1. %s\n", sentence(), sentence())
			}
		case 1:
			b.WriteString("| variant | ns/op | delta |\n| --- | ---: | :---: |\n")
			for i := 0; i < 4+r.next(4); i++ {
				fmt.Fprintf(&b, "| %s | %d | %+d%% |\n", word(), 100+r.next(9000), r.next(21)-10)
			}
		case 2:
			fmt.Fprintf(&b, "> %s\n> %s \"quoted\" -- (c) ...\n", sentence(), sentence())
		case 3:
			fmt.Fprintf(&b, "```go\nfunc %s(d time.Duration) {\n\tt := time.AfterFunc(d, %s)\n\tdefer t.Stop()\n}\n```\n", word(), word())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// standInAssets returns the stand-in assets of the sweet benchmarks that need any, by benchmark and
// file name.
func standInAssets() map[string]map[string]string {
	md := map[string]string{"README.md.txt": "Stand-in assets made by timerlab (internal/xbench/assets.go), not sweet's.\n"}
	r := rng(2)
	for i := 0; i < 40; i++ {
		md[fmt.Sprintf("doc%02d.md", i)] = markdownDoc(&r, 400<<10)
	}
	return map[string]map[string]string{
		"gopher-lua": {
			"k-nucleotide.lua": kNucleotideLua,
			"input.txt":        dna(2_000_000),
			"README.md":        "Stand-in assets made by timerlab (internal/xbench/assets.go), not sweet's.\n",
		},
		"markdown": md,
	}
}

// writeAssets makes dir sweet's -assets-dir with the stand-ins, unless it exists: written in a
// temporary directory renamed into place, so it is complete or absent.
func writeAssets(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".assets-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for bench, files := range standInAssets() {
		for name, content := range files {
			path := filepath.Join(tmp, bench, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				return err
			}
		}
	}
	return os.Rename(tmp, dir)
}

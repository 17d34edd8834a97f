//go:build !cascadeobs

package main

func readObs() []uint64 { return nil }

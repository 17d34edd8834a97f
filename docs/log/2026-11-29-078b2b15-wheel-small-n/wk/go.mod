module wk

go 1.27

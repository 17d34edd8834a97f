module one

go 1.27

module timerlab

go 1.26

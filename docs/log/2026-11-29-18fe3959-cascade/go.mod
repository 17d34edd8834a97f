module timerlab.local/cascade

go 1.26

B
reduce_maxJ}|Z}
B
reduce_maxJmqt
B
seq
	"at"JùÏÆ?P!¿pÀ®@
BselectJ`ªi;_ÿ$v›aÜf›aÜfÿ$vªi;_ßB: m^i[i;l[i;lm^ißB: ˜Êo8aO[
'tå
'tåaO[˜Êo8V	p©ýñqCqôCqôýñqV	p©
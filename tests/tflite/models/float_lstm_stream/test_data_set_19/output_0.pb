BhiddenJÎWM=
f¾Šz´½wíƒ½R ->
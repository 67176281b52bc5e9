
Bx0J
З(ЄноqФBRI
BframeJí
?kË¿wö2@DßV?
BframeJ
t„
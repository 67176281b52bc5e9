BpreviousJ
t„
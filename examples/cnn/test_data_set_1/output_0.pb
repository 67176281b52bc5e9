
BprobabilitiesJ(¤Ã=Îxã=:ÇÈ=3oË=¾õÏ=€¤=¬Nè={®Ç=e3Ú=óÆ=
Bmean_hwJÇ
×
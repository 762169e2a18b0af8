// TernHTTP

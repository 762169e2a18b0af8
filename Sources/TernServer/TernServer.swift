// TernServer

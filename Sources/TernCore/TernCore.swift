// TernCore

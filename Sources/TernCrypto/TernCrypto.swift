// TernCrypto

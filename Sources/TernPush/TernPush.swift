// TernPush

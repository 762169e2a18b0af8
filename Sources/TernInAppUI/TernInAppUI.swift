// TernInAppUI draws in-app messages on iOS (Apple/): everything it decides comes from TernInApp.
// On other platforms the module is empty.

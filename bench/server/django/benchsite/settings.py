# The peer a team would pick instead of Tern for device registration: django-push-notifications'
# APNSDeviceViewSet (Django REST Framework) on gunicorn, SQLite in WAL mode. bench/server/run.sh
# installs it into a venv beside this file and measures it under the same wrk settings as Tern.
import os

BASE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET_KEY = "bench-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "rest_framework",
    "push_notifications",
]
MIDDLEWARE = []
ROOT_URLCONF = "benchsite.urls"
WSGI_APPLICATION = "benchsite.wsgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("BENCH_DJANGO_DB", os.path.join(BASE, "bench.sqlite3")),
        "OPTIONS": {"timeout": 30},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
# Anonymous device registration, as an app would do it with an rToken-like public endpoint.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
}
PUSH_NOTIFICATIONS_SETTINGS = {"USER_MODEL": "auth.User"}
LOGGING = {"version": 1, "disable_existing_loggers": True}

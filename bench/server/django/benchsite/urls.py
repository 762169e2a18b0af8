from django.urls import include, path
from push_notifications.api.rest_framework import APNSDeviceViewSet
from rest_framework.routers import DefaultRouter

router = DefaultRouter()
router.register(r"device/apns", APNSDeviceViewSet)

urlpatterns = [path("", include(router.urls))]

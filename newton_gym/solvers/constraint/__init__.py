"""constraint"""

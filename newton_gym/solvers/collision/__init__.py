"""collision"""

"""smooth"""

import os

PORT = int(os.environ.get('PORT', '8080'))

def main():
    print('starting on', PORT)

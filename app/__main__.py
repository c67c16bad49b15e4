from app.launch import entry

entry()
